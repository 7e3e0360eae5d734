import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button, Form, Modal } from "antd";
import type { ApiKey, UpdateApiKeyInput } from "#shared/api-keys";
import { useT } from "../../i18n";
import { keysQueryKey } from "../../lib/api/list-keys";
import { toast } from "../../lib/toast";
import { updateKey } from "./api/update-key";
import { KeyForm, toKeyBody, toKeyFormValues, type KeyFormValues } from "./key-form";
import { useFormSubmission } from "../../lib/use-form-submission";

/** Only what the user changed is sent, so an untouched past expiry does not block a rename. */
function changes(key: ApiKey, values: KeyFormValues): UpdateApiKeyInput {
  const before = toKeyBody(toKeyFormValues(key));
  const after = toKeyBody(values);
  const diff: Record<string, unknown> = {};
  for (const field of Object.keys(after) as (keyof typeof after)[]) {
    if (JSON.stringify(after[field]) !== JSON.stringify(before[field])) diff[field] = after[field];
  }
  return diff as UpdateApiKeyInput;
}

export function EditKeyModal({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const t = useT();
  const [form] = Form.useForm<KeyFormValues>();
  const queryClient = useQueryClient();
  // One save per click of Save: a double click sent the change twice and said "saved" twice.
  const submission = useFormSubmission();
  const mutation = useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: UpdateApiKeyInput; idempotencyKey: string }) => updateKey(apiKey.id, body, idempotencyKey),
    onSettled: () => submission.settled(),
    onSuccess: () => {
      submission.forget();
      toast("success", t("apiKeys.saved"));
      void queryClient.invalidateQueries({ queryKey: keysQueryKey });
      onClose();
    },
  });
  const submit = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    const body = changes(apiKey, values);
    const idempotencyKey = submission.start(body);
    if (idempotencyKey) mutation.mutate({ body, idempotencyKey });
  };
  return (
    <Modal
      open
      title={t("apiKeys.editTitle")}
      onCancel={onClose}
      mask={{ closable: false }}
      destroyOnHidden
      footer={
        <>
          <Button onClick={onClose}>{t("apiKeys.cancel")}</Button>
          <Button type="primary" loading={mutation.isPending} onClick={() => void submit()} data-testid="save-key">
            {t("apiKeys.save")}
          </Button>
        </>
      }
    >
      <KeyForm form={form} initialValues={toKeyFormValues(apiKey)} editing={apiKey} />
    </Modal>
  );
}
