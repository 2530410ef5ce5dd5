/** Consecutive dead-lettered events after which a subscription is switched off. */
export const DEAD_LETTER_LIMIT = 20;
/** Attempts in flight at once towards one subscription, so one slow receiver cannot take every slot. */
export const PER_SUBSCRIPTION_IN_FLIGHT = 5;
export const MAX_SUBSCRIPTIONS_PER_STORE = 10;
export const DELIVERY_LOG_SIZE = 100;
