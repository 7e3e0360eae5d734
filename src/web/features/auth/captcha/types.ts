/** A loaded captcha: `solve` shows or runs the challenge and resolves with the proof for the server, or null if abandoned. */
export interface Captcha {
  solve(): Promise<string | null>;
  dispose(): void;
}
