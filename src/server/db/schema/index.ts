// Each feature keeps its tables in its own file here; this index is what drizzle and the app see.
export * from "./core";
export * from "./keys";
export * from "./money";
export * from "./auth";
export * from "./gateway";
export * from "./applications";
export * from "./alerts";
export * from "./operators";
export * from "./calls";
export * from "./llm";
export * from "./lots";
export * from "./tries";
export * from "./tiers";
