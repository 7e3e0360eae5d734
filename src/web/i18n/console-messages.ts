/**
 * The console's, the login's and the HTTP client's English. Imported for its effect by each of
 * them (layouts/default.tsx, features/auth/login-modal.tsx, lib/http.ts), so it loads with the
 * first of them and never with the public pages.
 */
import { enConsole } from "./en-console";
import { addMessages } from "./index";

addMessages("en", enConsole);
