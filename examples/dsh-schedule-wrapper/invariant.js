// The official invariant companion, unchanged.
export * from '@deepseek-ai/dsh-schedule/invariant'
