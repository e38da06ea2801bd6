import type { FastifyInstance } from 'fastify';
import type { Services } from '../app/services.js';
import { registerProjectRoutes } from '../projects/project-routes.js';

/** The route plugins of every feature, in registration order. */
export const features: ReadonlyArray<(app: FastifyInstance, services: Services) => void | Promise<void>> = [registerProjectRoutes];
