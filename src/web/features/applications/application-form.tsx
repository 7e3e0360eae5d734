import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button, Form, Input, Select } from "antd";
import type { Rule } from "antd/es/form";
import { useEffect } from "react";
import {
  APPLICATION_ERROR_CODES,
  COMPANY_OR_PROJECT_MAX,
  COMPANY_OR_PROJECT_MIN,
  CONTACT_MAX,
  EXPECTED_CALLS_MAX,
  USE_CASE_MAX,
  USE_CASE_MIN,
  companyOrProjectProblem,
  contactProblem,
  expectedCallsProblem,
  parseExpectedCalls,
  useCaseProblem,
  type ApprovalTool,
} from "#shared/applications";
import { useT, type MessageKey, type Translate } from "../../i18n";
import { useToolName } from "../../lib/api/list-tools";
import { ApiError, refusedField } from "../../lib/http";
import { useFormSubmission } from "../../lib/use-form-submission";
import { toast } from "../../lib/toast";
import { createApplication } from "./api/create-application";
import { applicationsQueryKey } from "./api/list-applications";

export interface ApplicationFormValues {
  toolId: string | undefined;
  companyOrProject: string;
  useCase: string;
  expectedMonthlyCalls: string;
  contact: string;
}

const EMPTY: ApplicationFormValues = { toolId: undefined, companyOrProject: "", useCase: "", expectedMonthlyCalls: "", contact: "" };

/** A rule that runs one of the shared checks and says its problem in the reader's language. */
function check<P extends string>(problem: (value: string) => P | null, messages: Record<P, MessageKey>, t: Translate, vars = {}): Rule[] {
  return [
    {
      validator: (_rule, value: string | undefined) => {
        const found = problem(value ?? "");
        return found ? Promise.reject(new Error(t(messages[found], vars))) : Promise.resolve();
      },
    },
  ];
}

function rules(t: Translate): Record<keyof ApplicationFormValues, Rule[]> {
  const limits = { min: COMPANY_OR_PROJECT_MIN, max: COMPANY_OR_PROJECT_MAX };
  return {
    toolId: [{ required: true, message: t("applications.toolRequired") }],
    companyOrProject: check(
      companyOrProjectProblem,
      { required: "applications.companyRequired", tooShort: "applications.companyTooShort", tooLong: "applications.companyTooLong" },
      t,
      limits,
    ),
    useCase: check(
      useCaseProblem,
      { required: "applications.useCaseRequired", tooShort: "applications.useCaseTooShort", tooLong: "applications.useCaseTooLong" },
      t,
      { min: USE_CASE_MIN, max: USE_CASE_MAX },
    ),
    expectedMonthlyCalls: check(
      expectedCallsProblem,
      {
        required: "applications.callsRequired",
        notWhole: "applications.callsNotWhole",
        notPositive: "applications.callsNotPositive",
        tooLarge: "applications.callsTooLarge",
      },
      t,
      { max: String(EXPECTED_CALLS_MAX).replace(/\B(?=(\d{3})+$)/g, ",") },
    ),
    contact: check(
      contactProblem,
      { required: "applications.contactRequired", invalid: "applications.contactInvalid", tooLong: "applications.contactTooLong" },
      t,
      { max: CONTACT_MAX },
    ),
  };
}

const REFUSALS: Record<string, MessageKey> = {
  [APPLICATION_ERROR_CODES.toolNotApplicable]: "applications.toolNotApplicable",
  [APPLICATION_ERROR_CODES.alreadyPending]: "applications.alreadyPending",
  [APPLICATION_ERROR_CODES.alreadyGranted]: "applications.alreadyGranted",
};

const isOpen = (tool: ApprovalTool) => !tool.hasAccess && !tool.pending;

/** Apply for a tool that needs approval; `preferredTool` (from `?tool=`) is chosen first when it is open. */
export function ApplicationForm({ tools, preferredTool }: { tools: ApprovalTool[]; preferredTool: string | null }) {
  const t = useT();
  const toolName = useToolName();
  const [form] = Form.useForm<ApplicationFormValues>();
  const queryClient = useQueryClient();
  const chosen = Form.useWatch("toolId", form);
  const r = rules(t);

  // Keeps a tool picked that the user may still apply for, also after the one just applied for becomes pending.
  useEffect(() => {
    const current = tools.find((tool) => tool.id === chosen);
    if (current && isOpen(current)) return;
    const next = tools.find((tool) => tool.id === preferredTool && isOpen(tool)) ?? tools.find(isOpen);
    form.setFieldValue("toolId", next?.id);
  }, [tools, chosen, preferredTool, form]);

  // One application per filled form, however often Submit is clicked or the POST resent.
  const submission = useFormSubmission();

  const mutation = useMutation({
    mutationFn: createApplication,
    onSettled: () => submission.settled(),
    onSuccess: () => {
      toast("success", t("applications.submitted"));
      submission.forget();
      form.resetFields();
      return queryClient.invalidateQueries({ queryKey: applicationsQueryKey });
    },
    onError: (error, { body }) => {
      if (!(error instanceof ApiError) || error.status !== 400) return;
      const refusal = error.code ? REFUSALS[error.code] : undefined;
      if (refusal) {
        const tool = toolName(body.toolId, tools.find((candidate) => candidate.id === body.toolId)?.name);
        form.setFields([{ name: "toolId", errors: [t(refusal, { tool })] }]);
        return void queryClient.invalidateQueries({ queryKey: applicationsQueryKey });
      }
      const field = refusedField(error);
      if (field && field in EMPTY) return form.setFields([{ name: field as keyof ApplicationFormValues, errors: [t("errors.invalidInput")] }]);
      toast("error", field ? t("errors.invalidInput") : error.message);
    },
  });

  const submit = (values: ApplicationFormValues) => {
    const body = {
      toolId: values.toolId ?? "",
      companyOrProject: values.companyOrProject.trim(),
      useCase: values.useCase.trim(),
      expectedMonthlyCalls: parseExpectedCalls(values.expectedMonthlyCalls),
      contact: values.contact.trim(),
    };
    const idempotencyKey = submission.start(body);
    if (idempotencyKey) mutation.mutate({ body, idempotencyKey });
  };

  return (
    <Form
      form={form}
      layout="vertical"
      name="application"
      initialValues={EMPTY}
      onFinish={submit}
      style={{ maxWidth: 640 }}
    >
      <Form.Item name="toolId" label={t("applications.tool")} rules={r.toolId}>
        <Select
          placeholder={t("applications.toolPlaceholder")}
          options={tools.map((tool) => ({
            value: tool.id,
            disabled: !isOpen(tool),
            label: tool.hasAccess
              ? `${toolName(tool.id, tool.name)} (${t("applications.toolHasAccess")})`
              : tool.pending
                ? `${toolName(tool.id, tool.name)} (${t("applications.toolPending")})`
                : toolName(tool.id, tool.name),
          }))}
          data-testid="application-tool"
        />
      </Form.Item>
      <Form.Item name="companyOrProject" label={t("applications.companyOrProject")} rules={r.companyOrProject} required>
        <Input placeholder={t("applications.companyPlaceholder")} count={{ show: true, max: COMPANY_OR_PROJECT_MAX }} />
      </Form.Item>
      <Form.Item name="useCase" label={t("applications.useCase")} rules={r.useCase} required>
        <Input.TextArea placeholder={t("applications.useCasePlaceholder")} autoSize={{ minRows: 3, maxRows: 10 }} count={{ show: true, max: USE_CASE_MAX }} />
      </Form.Item>
      <Form.Item name="expectedMonthlyCalls" label={t("applications.expectedMonthlyCalls")} rules={r.expectedMonthlyCalls} required>
        <Input inputMode="numeric" placeholder={t("applications.expectedCallsPlaceholder")} />
      </Form.Item>
      <Form.Item name="contact" label={t("applications.contact")} extra={t("applications.contactHelp")} rules={r.contact} required>
        <Input placeholder={t("applications.contactPlaceholder")} autoComplete="email" />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={mutation.isPending} data-testid="apply-submit">
        {t("applications.submit")}
      </Button>
    </Form>
  );
}
