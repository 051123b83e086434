/** Read models of the execution chain: the actor serving them (the rules behind them are in core/assessment). */
export { ExecutionReadModelActor } from './actor.ts';
