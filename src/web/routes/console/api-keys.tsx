import { PlaceholderPage } from "../../components/placeholder-page";

export default function ConsoleApiKeysPage() {
  return <PlaceholderPage titleKey="nav.apiKeys" testId="console-api-keys" />;
}
