const USERS = { 1: { id: 1, name: 'Ada' } };
export function loadUser(id, callback) {
  setImmediate(() => (USERS[id] ? callback(null, USERS[id]) : callback(new Error('unknown user'))));
}
