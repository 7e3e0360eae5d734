/** SPEC.md §9: messages stack from z-index 5000, popups from 1000. */
export const Z_INDEX_POPUP_BASE = 1000;
export const Z_INDEX_MESSAGE = 5000;
