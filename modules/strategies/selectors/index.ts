export const selectorStrategies = {};
