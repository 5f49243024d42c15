export * from './claimed-turn';
export * from './turn-ledger';
