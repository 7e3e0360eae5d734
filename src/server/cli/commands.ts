import type { CliCommand } from "../lib/cli/command";
import { creditCommand, debitCommand, ledgerVerifyCommand } from "../modules/ledger/cli";
import { usersDisableCommand, usersEnableCommand, usersFindCommand, usersShowCommand } from "../modules/users/cli";
import { callsRefundCommand, callsShowCommand } from "../modules/gateway/cli";
import { auditCommand } from "./audit";
import { applicationsApproveCommand, applicationsListCommand, applicationsRejectCommand } from "../modules/applications/cli";
import { codesCreateCommand, codesExportCommand, codesListCommand, codesVoidCommand } from "../modules/redemption/cli";
import { statsCommand } from "../modules/stats/cli";
import { sessionsListCommand, sessionsRevokeCommand } from "../modules/auth/cli";
import { packagesGrantCommand, packagesListCommand, packagesRefundCommand } from "../modules/plans/cli";

/** Every `tollgate admin` command. Features add theirs here. */
export const COMMANDS: CliCommand[] = [
  usersFindCommand,
  usersShowCommand,
  usersDisableCommand,
  usersEnableCommand,
  creditCommand,
  debitCommand,
  codesCreateCommand,
  codesListCommand,
  codesVoidCommand,
  codesExportCommand,
  callsShowCommand,
  callsRefundCommand,
  sessionsListCommand,
  sessionsRevokeCommand,
  applicationsListCommand,
  applicationsApproveCommand,
  applicationsRejectCommand,
  statsCommand,
  ledgerVerifyCommand,
  packagesGrantCommand,
  packagesListCommand,
  packagesRefundCommand,
  auditCommand,
];
