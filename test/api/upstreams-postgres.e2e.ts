import { postgres } from './routes-suite';
import { upstreamsApiSuite } from './upstreams-suite';

upstreamsApiSuite(postgres());
