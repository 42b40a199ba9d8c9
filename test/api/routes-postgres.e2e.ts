import { postgres, routesApiSuite } from './routes-suite';

routesApiSuite(postgres());
