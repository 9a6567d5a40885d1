// Jest set-up for the real-n8n suites: every HTTP call a test makes opens its own connection. Node 20's
// global agent keeps sockets alive, and n8n closes an idle one after its keep-alive timeout: a test that
// reused such a socket on a loaded machine failed with "socket hang up" or EPIPE (editor suite, a forged
// callback posted after a pause). Tests measure n8n, not connection reuse.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

import axios from 'axios';

axios.defaults.httpAgent = new HttpAgent({ keepAlive: false });
axios.defaults.httpsAgent = new HttpsAgent({ keepAlive: false });
