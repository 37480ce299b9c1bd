const USERS = { 1: { id: 1, name: 'Ada' } };
export function loadUser(id) {
  return new Promise((resolve, reject) => setImmediate(() => (USERS[id] ? resolve(USERS[id]) : reject(new Error('unknown user')))));
}
