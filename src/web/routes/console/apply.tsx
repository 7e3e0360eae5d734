import { PlaceholderPage } from "../../components/placeholder-page";

export default function ConsoleApplyPage() {
  return <PlaceholderPage titleKey="nav.apply" testId="console-apply" />;
}
