/** What other modules may use of sign-in: ending a user's sessions. */
export { revokeAllSessions } from "./sessions";
