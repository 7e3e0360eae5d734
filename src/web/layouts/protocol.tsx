import { Outlet } from "react-router";
import { SiteFooter, SiteHeader } from "../components/site-chrome";

export default function ProtocolLayout() {
  return (
    <div className="page layout-protocol" data-layout="protocol">
      <SiteHeader />
      <main className="reading-column">
        <Outlet />
      </main>
      <SiteFooter />
    </div>
  );
}
