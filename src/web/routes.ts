import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

export default [
  layout("layouts/home.tsx", [index("routes/home.tsx")]),
  route("console", "routes/console-redirect.tsx"),
  layout("layouts/default.tsx", [
    route("console/info", "routes/console/info.tsx"),
    route("console/api-keys", "routes/console/api-keys.tsx"),
    route("console/apply", "routes/console/apply.tsx"),
    route("console/billing-details", "routes/console/billing-details.tsx"),
    route("console/charge-details", "routes/console/charge-details.tsx"),
  ]),
  layout("layouts/protocol.tsx", [
    route("privacy", "routes/privacy.tsx"),
    route("protocol-serve", "routes/protocol-serve.tsx"),
    route("service-level", "routes/service-level.tsx"),
  ]),
  route("docs/*", "routes/docs.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
