/**
 * The error pages' and the legal documents' English. Imported for its effect by each of them
 * (components/error-pages.tsx, features/legal/legal-document.tsx), so the landing page's first
 * load does not carry it.
 */
import { enPages } from "./en-pages";
import { addMessages } from "./index";

addMessages("en", enPages);
