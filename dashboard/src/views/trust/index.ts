// The trust views (docs/DASHBOARD.md): one chunk, loaded on the first visit to any of them.
export { TrustOverview } from './TrustOverview';
export { TrustSubject } from './Subject';
export { TrustDisputes } from './Disputes';
export { TrustDispute } from './DisputeDetail';
export { TrustContracts } from './Contracts';
export { TrustContract } from './ContractDetail';
export { TrustChains } from './Chains';
export { TrustChain } from './ChainDetail';
