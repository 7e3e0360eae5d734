/** English of the error pages and the legal documents: loaded with them (page-messages.ts), not with every page. */
export const enPages = {
  pages: {
    notFoundTitle: "404",
    notFound: "This page does not exist.",
    errorTitle: "Something went wrong",
    error: "An unexpected error occurred. Reload the page or try again later.",
    backHome: "Back to home",
  },
  legal: {
    contents: "Contents",
    effective: "Effective {{date}}",
    operator: "Operated by {{company}}",
  },
} as const;
