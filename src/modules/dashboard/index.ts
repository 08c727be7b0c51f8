// The dashboard (DESIGN.md section 15): the landing page at `/` and the browser app at `/dashboard`.
export { contentSecurityPolicy, dashboardRoutes } from './routes.js';
