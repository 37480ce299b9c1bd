export function countWords(text) {
  return text.split(/\s+/).filter((word) => word !== '').length;
}
