export function parseNumberList(text) {
  return text.split(',').map(Number);
}
