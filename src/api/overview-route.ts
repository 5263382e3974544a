import { OVERVIEW_DEFAULT_LIMIT, OVERVIEW_MAX_LIMIT, OverviewSchema } from '../search/overview';
import { readOverview, type OverviewSources } from '../services/overview-service';
import { intQuery, type RouteTable } from './route-table';

const QUERY = { limit: intQuery({ min: 1, max: OVERVIEW_MAX_LIMIT, fallback: OVERVIEW_DEFAULT_LIMIT }) };

/** GET /api/overview: the console's charts of the last hour, aggregated by the search index (both profiles). */
export function overviewRoute(t: RouteTable, src: OverviewSources): void {
  t.get(
    '/api/overview',
    {
      permission: 'executions:read',
      summary:
        'Executions started, completed and failed per minute by workflow name over the last hour, the slowest and most failing workflows, task queue waits and queue depths',
      query: QUERY,
      res: { inline: OverviewSchema },
    },
    async (req, res) => {
      res.json(await readOverview(src, Date.now(), QUERY.limit.read(req, 'limit')));
    },
  );
}
