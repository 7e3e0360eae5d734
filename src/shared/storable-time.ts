/** The first instant the database cannot store: the year 10000 in UTC (9999-12-31T23:59:59-14:00 is in it). */
export const AFTER_STORABLE_TIME = Date.UTC(10000, 0, 1);
