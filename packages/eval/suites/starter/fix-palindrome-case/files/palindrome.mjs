export function isPalindrome(text) {
  return text === [...text].reverse().join('');
}
