import { redirect } from "react-router";
import { CONSOLE_HOME } from "#shared/site-routes";

export function clientLoader() {
  return redirect(CONSOLE_HOME);
}

export default function ConsoleRedirect() {
  return null;
}
