// The kit's exported cases against this example's tool function (npm test).
import { contractCases } from '../contract/contract-cases.js';
import { callTool, SessionStore } from '../list-user-inputs.js';

const stores = new Map(); // one store per sessions folder, as one server process keeps one
contractCases(new URL('../contract/cases.json', import.meta.url), async (sessionsDir, sourceId, args) => {
  if (!stores.has(sessionsDir)) stores.set(sessionsDir, new SessionStore(sessionsDir));
  return (await callTool(stores.get(sessionsDir), args, sourceId ?? undefined)).result;
});
