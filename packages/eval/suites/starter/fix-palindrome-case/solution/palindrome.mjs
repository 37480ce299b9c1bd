export function isPalindrome(text) {
  const letters = text.toLowerCase().replace(/[^a-z0-9]/g, '');
  return letters === [...letters].reverse().join('');
}
