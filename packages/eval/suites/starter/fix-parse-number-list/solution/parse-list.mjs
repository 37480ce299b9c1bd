export function parseNumberList(text) {
  return text.split(',').map((item) => item.trim()).filter((item) => item !== '').map(Number);
}
