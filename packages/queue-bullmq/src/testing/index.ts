// @troupe/queue-bullmq/testing: a real redis-server for tests of code that uses the queue.
export { findRedisServer, sleep, startTestRedis, waitFor, type TestRedis } from './test-redis-server';
