// Public entry of the sandbox gateway: start it from tests, scripts and the CLI.
export { startSandbox, DEFAULT_CREDENTIALS, OTHER_MERCHANT_CREDENTIALS } from './server';
export { signCallback, isLoopbackHost } from './callbacks';
export { NETWORK_COUNTRY_CODES, chargesTable, feeFor } from './networks';
export { payerOutcome, refundOutcome, disbursementOutcome, parsePayoutSettleMs } from './gateway';
export { TEST_CARDS, luhnValid } from './cards';
export type {
	SandboxOptions,
	SandboxHandle,
	SandboxMerchant,
	MerchantCredentials,
	FaultRule,
	CallbackLogEntry,
	RequestLogEntry,
	PaymentStatus,
	MobileNetwork,
	PayoutSettleMs,
} from './types';
