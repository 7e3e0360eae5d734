import { PlaceholderPage } from "../../components/placeholder-page";

export default function ConsoleChargeDetailsPage() {
  return <PlaceholderPage titleKey="nav.chargeDetails" testId="console-charge-details" />;
}
