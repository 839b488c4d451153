export const coreStrategies = {};
