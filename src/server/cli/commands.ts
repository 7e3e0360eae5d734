import type { CliCommand } from "./command";
import { creditCommand, ledgerVerifyCommand } from "../modules/ledger/cli";
import { applicationsApproveCommand, applicationsListCommand, applicationsRejectCommand } from "../modules/applications/cli";
import { codesCreateCommand } from "../modules/redemption/cli";
import { statsCommand } from "../modules/stats/cli";
import { sessionsListCommand, sessionsRevokeCommand } from "../modules/auth/cli";

/** Every `tollgate admin` command. Features add theirs here. */
export const COMMANDS: CliCommand[] = [
  codesCreateCommand,
  creditCommand,
  ledgerVerifyCommand,
  applicationsListCommand,
  applicationsApproveCommand,
  applicationsRejectCommand,
  statsCommand,
  sessionsListCommand,
  sessionsRevokeCommand,
];
