/** What other modules may use of the gateway: handing it a console try (a key named by id, issue 40), and the rule its path is held to. */
export { CONSOLE_TRY_HEADER, consoleTriesPlugin, type ConsoleTryTicket } from "./console-tries";
export { badPathMessage } from "./upstream-path";
