import { Outlet } from "react-router";
import { SiteFooter, SiteHeader } from "../components/site-chrome";

export default function HomeLayout() {
  return (
    <div className="page layout-home" data-layout="home">
      <SiteHeader />
      <Outlet />
      <SiteFooter />
    </div>
  );
}
