export const TAX_RATE = 0.2;
export function withTax(price) {
  return price * (1 + TAX_RATE);
}
export function taxOf(price) {
  return price * TAX_RATE;
}
