/**
 * zod probes for `new Function` when it builds an object schema, to compile faster parsers; our
 * Content-Security-Policy forbids eval, so every probe is a reported violation. zod 4 keeps its
 * settings on this global (zod/v4/core/core.js) and reads them at schema construction, so setting
 * it here, before any schema exists, costs the landing page nothing. tests/unit/zod-jitless.test.ts
 * checks zod still reads it.
 */
const holder = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
(holder.__zod_globalConfig ??= {}).jitless = true;

export {};
