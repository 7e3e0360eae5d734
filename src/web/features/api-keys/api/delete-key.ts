import { api } from "../../../lib/http";
import { KEYS_PATH } from "../../../lib/api/list-keys";

export function deleteKey(id: number): Promise<{ id: number; deleted: true }> {
  return api(`${KEYS_PATH}/${id}`, { method: "DELETE" });
}
