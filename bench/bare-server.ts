/**
 * The baseline: a bare Fastify app (default options, no logger) with one trivial GET route, in its
 * own process. Prints `listening <port>` once it accepts connections; stops on SIGTERM.
 */
import Fastify from 'fastify';

const app = Fastify();
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
process.once('SIGTERM', () => void app.close());
