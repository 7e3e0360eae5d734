import { PlaceholderPage } from "../../components/placeholder-page";

export default function ConsoleBillingDetailsPage() {
  return <PlaceholderPage titleKey="nav.billingDetails" testId="console-billing-details" />;
}
