import { z } from 'zod';
import { isoDateOrTime, queryInt } from '../../http/validate';

/** Request fragments several resources share: ids, pages, dates. */

export const uuid = (what: string) => z.string().uuid(`${what} must be a UUID`);
export const idParams = (what: string) => z.object({ id: uuid(what) });

export const pageQuery = z.object({
  limit: queryInt(50, 1, 500),
  offset: queryInt(0, 0, Number.MAX_SAFE_INTEGER),
});

/** A calendar date (`2024-05-01`) or an ISO 8601 timestamp; impossible dates such as `2024-02-30` are refused. */
export const isoDateSchema = isoDateOrTime();
