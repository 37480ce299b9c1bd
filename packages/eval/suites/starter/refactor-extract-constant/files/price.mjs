export function withTax(price) {
  return price * (1 + 0.2);
}
export function taxOf(price) {
  return price * 0.2;
}
