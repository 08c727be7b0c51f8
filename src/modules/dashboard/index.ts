// The dashboard (docs/dashboard.md): the landing page at `/` and the browser app at `/dashboard`.
export { contentSecurityPolicy, dashboardRoutes } from './routes.js';
