import { routesApiSuite, SQLITE } from './routes-suite';

routesApiSuite(SQLITE);
