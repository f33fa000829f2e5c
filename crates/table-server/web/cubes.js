// The cubes table (being written).
import { el } from "./ui.js";
export function mount(root, ctx) {
  const pre = el("pre", {});
  root.append(pre);
  return { show(msg) { pre.textContent = JSON.stringify(msg.observation, null, 1); }, refused() {}, acked() {}, key() { return false; }, destroy() {} };
}
