import { apiKeysApiSuite, postgres } from './api-keys-suite';

apiKeysApiSuite(postgres());
