import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button, Form, Modal } from "antd";
import { useState } from "react";
import type { CreatedApiKey } from "#shared/api-keys";
import { useT } from "../../i18n";
import { keysQueryKey } from "../../lib/api/list-keys";
import { createKey } from "./api/create-key";
import { KeyForm, toKeyBody, type KeyFormValues } from "./key-form";
import { NewKeySecret } from "./new-key-secret";
import { useFormSubmission } from "../../lib/use-form-submission";

/** Create a key, then show its secret once; closing forgets the secret for good. */
export function CreateKeyModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const t = useT();
  const [form] = Form.useForm<KeyFormValues>();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const queryClient = useQueryClient();
  // One key per filled form: a double click on Create made two, one of them with a secret never shown.
  const submission = useFormSubmission();
  const mutation = useMutation({
    mutationFn: createKey,
    onSettled: () => submission.settled(),
    onSuccess: (result) => {
      submission.forget();
      setCreated(result);
      void queryClient.invalidateQueries({ queryKey: keysQueryKey });
    },
  });

  const submit = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    const body = toKeyBody(values);
    const idempotencyKey = submission.start(body);
    if (idempotencyKey) mutation.mutate({ body, idempotencyKey });
  };
  // Not while a key is being made: closed, the dialog could no longer show its secret, once only.
  const close = () => {
    if (mutation.isPending) return;
    setCreated(null);
    form.resetFields();
    mutation.reset();
    onClose();
  };

  return (
    <Modal
      open={open}
      title={created ? t("apiKeys.secretTitle") : t("apiKeys.createTitle")}
      onCancel={close}
      mask={{ closable: false }}
      destroyOnHidden
      footer={
        created ? (
          <Button type="primary" onClick={close} data-testid="close-new-key">
            {t("apiKeys.done")}
          </Button>
        ) : (
          <>
            <Button onClick={close} disabled={mutation.isPending}>
              {t("apiKeys.cancel")}
            </Button>
            <Button type="primary" loading={mutation.isPending} onClick={() => void submit()} data-testid="submit-key">
              {t("apiKeys.create")}
            </Button>
          </>
        )
      }
    >
      {created ? <NewKeySecret secret={created.secret} /> : <KeyForm form={form} />}
    </Modal>
  );
}
