import { PlaceholderPage } from "../../components/placeholder-page";

export default function ConsoleInfoPage() {
  return <PlaceholderPage titleKey="nav.info" testId="console-info" />;
}
