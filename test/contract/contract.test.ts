// The version-1 contract for saved workflows (testkit/contract.ts): a change that would break a workflow saved
// with version 1 of either node or credential fails here; additions pass. `npm run contract` rewrites
// test/contract/v1.json from the package, deliberately (a breaking change is a new node version instead).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { breakingChanges, currentContract } from '../../testkit/contract';
import type { Contract, ContractParameter } from '../../testkit/contract';

const FILE = join(__dirname, 'v1.json');

if (process.env.UPDATE_CONTRACT === '1')
	writeFileSync(FILE, JSON.stringify(currentContract(), null, '\t') + '\n');

const committed = (): Contract => JSON.parse(readFileSync(FILE, 'utf8')) as Contract;
const copy = (): Contract => JSON.parse(JSON.stringify(currentContract())) as Contract;
const find = (
	list: ContractParameter[],
	name: string,
	test: (p: ContractParameter) => boolean = () => true,
) => {
	const found = list.find((p) => p.name === name && test(p));
	if (!found) throw new Error(`no parameter ${name}`);
	return found;
};

describe('the version-1 contract for saved workflows', () => {
	it('describes both nodes and both credentials, every parameter with its type, default and display rule', () => {
		const contract = committed();
		expect(Object.values(contract.nodes).map((n) => n.name)).toEqual([
			'littlePay',
			'littlePayTrigger',
		]);
		expect(Object.values(contract.credentials).map((c) => c.name)).toEqual([
			'littlePayBasicApi',
			'littlePayApiKeyApi',
		]);
		const resource = find(contract.nodes.littlePay.parameters, 'resource');
		expect(resource.type).toBe('options');
		expect(resource.options).toEqual(
			expect.arrayContaining(['paymentIntent', 'mobileMoney', 'disbursement']),
		);
		expect(find(contract.credentials.littlePayApiKeyApi.parameters, 'apiKey').type).toBe('string');
	});

	it('a workflow saved with version 1 finds every parameter, option value, type, default and place it used', () => {
		expect(breakingChanges(committed(), currentContract())).toEqual([]);
	});

	it('fails a removed or renamed parameter, a removed option value, a changed type or default and a narrower display rule', () => {
		const was = currentContract();
		const pay = (c: Contract) => c.nodes.littlePay.parameters;

		const renamed = copy();
		find(pay(renamed), 'resource').name = 'kind';
		expect(breakingChanges(was, renamed)).toEqual(['littlePay: resource: removed or renamed']);

		const option = copy();
		const resource = find(pay(option), 'resource');
		resource.options = resource.options?.map((v) => (v === 'disbursement' ? 'payout' : v));
		expect(breakingChanges(was, option)).toEqual([
			'littlePay: resource: option value "disbursement" removed',
		]);

		const retyped = copy();
		for (const p of pay(retyped)) if (p.name === 'amount') p.type = 'string';
		expect(breakingChanges(was, retyped).length).toBeGreaterThan(0);
		expect(
			breakingChanges(was, retyped).every((b) => /amount.*type number became string/.test(b)),
		).toBe(true);

		const defaulted = copy();
		const events = find(defaulted.nodes.littlePayTrigger.parameters, 'events');
		events.default = ['payment.completed'];
		expect(breakingChanges(was, defaulted)).toEqual([
			expect.stringMatching(
				/^littlePayTrigger: events: default .* became \["payment.completed"\]$/,
			),
		]);

		const narrowed = copy();
		const shown = pay(narrowed).filter(
			(p) => (p.show?.operation?.length ?? 0) > 0 && p.name !== 'operation',
		);
		const target = shown[0];
		target.show = { ...target.show, flavour: ['vanilla'] };
		for (const p of pay(narrowed))
			if (p.name === target.name && p !== target) p.name = `${p.name}Moved`;
		expect(
			breakingChanges(was, narrowed).some(
				(b) => b.includes(`${target.name}`) && b.includes('now shown only'),
			),
		).toBe(true);

		const credential = copy();
		credential.credentials.littlePayBasicApi.parameters =
			credential.credentials.littlePayBasicApi.parameters.filter((p) => p.name !== 'tokenId');
		expect(breakingChanges(was, credential)).toEqual([
			'littlePayBasicApi: tokenId: removed or renamed',
		]);

		const collection = copy();
		const options = find(pay(collection), 'options', (p) => (p.fields?.length ?? 0) > 0);
		const removedField = options.fields?.shift();
		for (const p of pay(collection))
			if (p.name === 'options') p.fields = p.fields?.filter((f) => f.name !== removedField?.name);
		expect(
			breakingChanges(was, collection).some((b) => b.includes(`options.${removedField?.name}`)),
		).toBe(true);

		const unversioned = copy();
		unversioned.nodes.littlePay.versions = [2];
		expect(breakingChanges(was, unversioned)).toEqual([
			'nodes.littlePay: version 1 is no longer offered',
		]);
	});

	it('allows new parameters, new option values and fields shown in more places', () => {
		const was = currentContract();
		const now = copy();
		now.nodes.littlePay.parameters.push({ name: 'newField', type: 'string', default: '' });
		const resource = find(now.nodes.littlePay.parameters, 'resource');
		resource.options = [...(resource.options ?? []), 'subscription'];
		for (const p of now.nodes.littlePay.parameters)
			if (p.show?.resource) p.show = { ...p.show, resource: [...p.show.resource, 'subscription'] };
		now.nodes.littlePay.versions = [1, 2];
		expect(breakingChanges(was, now)).toEqual([]);
	});
});
