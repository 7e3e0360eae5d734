/** English for the public pages and the site's frame: in every page's first load. */
export const enSite = {
  nav: {
    home: "Home",
    docs: "Docs",
    console: "Console",
    login: "Log in",
    logout: "Sign out",
    language: "Language",
    userAgreement: "User Agreement",
    privacy: "Privacy Agreement",
    serviceLevel: "Service Level Agreement",
  },
  home: {
    title: "metered developer APIs",
    headline: "Metered APIs for developers, paid from one balance",
    lead: "Sign in with your phone, top up, create an API key and call any tool. Every successful call is priced and deducted; failed calls are free.",
    cta: "Get started",
    ctaConsole: "Open the console",
    readDocs: "Read the docs",
    stepsTitle: "How it works",
    step1: "Sign in with a code sent to your phone.",
    step2: "Top up your balance and create an API key.",
    step3: "Call the tools; pay only for successful calls.",
    catalogTitle: "Tools and prices",
    toolDocs: "Documentation",
    tryIt: "Try it",
  },
} as const;
