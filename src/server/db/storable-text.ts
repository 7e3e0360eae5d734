/**
 * Text as the database can store it: PostgreSQL's text holds no NUL, and a statement carrying one
 * fails whole (a batch of the call log, a kept try), so each is written as U+FFFD. Text a caller
 * or a tool sent is stored through this.
 */
export const storable = (text: string): string => (text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text);
