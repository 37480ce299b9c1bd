// Holds an exclusive lock on a SQLite file until stdin closes: another process writing meanwhile.
// Usage: node hold-write-lock.cjs <db path>
const Database = require('better-sqlite3');
const db = new Database(process.argv[2]);
db.exec('BEGIN EXCLUSIVE');
process.stdout.write('locked\n');
process.stdin.resume();
process.stdin.on('end', () => {
  db.exec('ROLLBACK');
  db.close();
});
