import { SQLITE } from './routes-suite';
import { upstreamsApiSuite } from './upstreams-suite';

upstreamsApiSuite(SQLITE);
