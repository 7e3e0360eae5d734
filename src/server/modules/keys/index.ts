/** What other modules may use of API keys: looking one up for a call, its state and spend, and hearing of changes. */
export { apiKeyHash, apiKeyRefusal, lookupApiKey, lookupApiKeyByHash, type ApiKeyRefusal, type FoundApiKey } from "./authenticate";
export { ownKeyHash } from "./service";
export { announceApiKeyChange, followApiKeyChanges, type ApiKeyChangeFollower } from "./changes";
export { apiKeyStatus, currentPeriodSpend, type ApiKeyRow } from "./key-view";
